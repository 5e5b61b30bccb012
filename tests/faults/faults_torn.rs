//! Torn tails. A 24 MB Write call makes the agent append a 24 MB tool_call event and a
//! 24 MB assistant line. A process killed in the middle of such an append leaves a last
//! line without its newline. The next run that opens the session moves the torn tail to
//! `<name>.torn-<timestamp>` next to the file, cuts the file at its last newline, logs an
//! `error` event, appends on a clean line, and sends a consistent conversation: no tool_use
//! without its tool_result, never two user messages in a row.

use crate::support::checks::*;
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

const BIG: usize = 24 << 20;

fn script() -> String {
    let line = "a line of the big generated file, long enough to be realistic\n";
    let content = line.repeat(BIG / line.len() + 1);
    let mut steps: Vec<serde_json::Value> = (1..=3)
        .map(|i| {
            serde_json::json!({"when": format!("WRITE-BIG-{i}"), "text": "Writing the big file.",
             "tool_calls": [{"name": "Write", "id": "big_write", "input": {"path": "big.txt", "content": content}}]})
        })
        .collect();
    steps.push(serde_json::json!({"repeat": true, "text": "Resumed fine."}));
    serde_json::Value::Array(steps).to_string()
}

fn side_files(dir: &Path, name: &str) -> Vec<PathBuf> {
    let prefix = format!("{name}.torn-");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

fn torn(path: &Path) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut b = [0u8];
    len > 0 && f.read_at(&mut b, len - 1).is_ok() && b[0] != b'\n'
}

struct Run<'a> {
    env: &'a Env,
    base: String,
    errlog: PathBuf,
}

impl Run<'_> {
    fn spawn(&self, args: &[&str]) -> Child {
        self.env
            .cmd()
            .args(["--provider", "claude", "--base-url", &self.base])
            .args(["--api-key", "sk-torn"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&self.errlog).unwrap())
            .spawn()
            .unwrap()
    }

    /// Resume `id` after a crash and check everything the issue promises. `cut` lists
    /// the files whose torn tails (their bytes) the crash left.
    fn resume_and_check(&self, mock: &Mock, id: &str, cut: &[(&str, Vec<u8>, &str)]) {
        let sdir = self.env.session_dir(id);
        let before = mock.requests().len();
        let mut c = self.spawn(&["--session", id, "AFTER-THE-CRASH"]);
        let st = wait_timeout(&mut c, 120);
        let err = std::fs::read_to_string(&self.errlog).unwrap();
        assert_eq!(st.code(), Some(0), "resume of {id}: {err}");
        assert_no_panic(&err);
        check_tree(&self.env.home);
        check_conversation(&sdir.join("conversation.jsonl"));
        let evs = events(&sdir.join("events.jsonl"));
        for (name, tail, what) in cut {
            let sides = side_files(&sdir, name);
            assert_eq!(sides.len(), 1, "{id}: side file of {name}: {sides:?}");
            assert_eq!(
                &std::fs::read(&sides[0]).unwrap(),
                tail,
                "{id}: the side file holds the torn tail of {name}"
            );
            let side = sides[0].file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                evs.iter().any(|e| e["type"] == "error"
                    && e["message"].as_str().unwrap().contains(what)
                    && e["message"].as_str().unwrap().contains(&side)),
                "{id}: no error event for {name}"
            );
        }
        // The resumed prompt starts on a clean line of its own.
        let conv = std::fs::read_to_string(sdir.join("conversation.jsonl")).unwrap();
        assert!(conv.contains("{\"role\":\"user\",\"content\":\"AFTER-THE-CRASH\"}\n"));
        let reqs = mock.requests();
        let first = &reqs[before]["body"];
        check_request_pairing(first);
        let msgs = first["messages"].as_array().unwrap();
        for w in msgs.windows(2) {
            assert!(
                w[0]["role"] != w[1]["role"],
                "{id}: two {} messages in a row in the request",
                w[0]["role"]
            );
        }
        assert!(msgs.last().unwrap().to_string().contains("AFTER-THE-CRASH"));
    }
}

/// Keep `keep` bytes of `path` (as a kill in the middle of the append would) and return
/// the torn tail that stays behind after the last newline.
fn cut_at(path: &Path, keep: u64) -> Vec<u8> {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(keep).unwrap();
    let bytes = std::fs::read(path).unwrap();
    let nl = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    bytes[nl..].to_vec()
}

/// Offset of the start of the first line containing `needle`.
fn line_start(path: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    let at = text.find(needle).unwrap();
    text[..at].rfind('\n').map_or(0, |i| i + 1) as u64
}

#[test]
fn torn_24mb_appends_are_set_aside_on_open() {
    let env = Env::new();
    let mock = Mock::start(&script());
    let run = Run {
        env: &env,
        base: mock.base("claude"),
        errlog: env.dir.path().join("stderr.log"),
    };

    // 1. A run that completes, then its files as a kill in the middle of the 24 MB
    //    appends leaves them: the tool_call event and the assistant line cut half-way.
    let mut c = run.spawn(&["--session", "CUT", "WRITE-BIG-1 please"]);
    assert_eq!(wait_timeout(&mut c, 120).code(), Some(0));
    let sdir = env.session_dir("CUT");
    let ev = sdir.join("events.jsonl");
    let conv = sdir.join("conversation.jsonl");
    let ev_tail = cut_at(
        &ev,
        line_start(&ev, "\"type\":\"tool_call\"") + (BIG / 2) as u64,
    );
    let conv_tail = cut_at(&conv, line_start(&conv, "big_write") + (BIG / 3) as u64);
    assert!(ev_tail.len() > BIG / 3 && conv_tail.len() > BIG / 4);
    run.resume_and_check(
        &mock,
        "CUT",
        &[
            ("events.jsonl", ev_tail, "torn line"),
            ("conversation.jsonl", conv_tail, "torn line"),
        ],
    );

    // 2. A real kill -9 once the 24 MB tool_call event is in events.jsonl (the Write runs,
    //    the assistant line is not written yet), the event cut as a kill during its
    //    append leaves it. The conversation ends with the user prompt: the resumed request
    //    merges it with the new prompt instead of sending two user messages in a row.
    let sdir = env.session_dir("KILL");
    let ev = sdir.join("events.jsonl");
    let mut child = Guard(run.spawn(&["--session", "KILL", "WRITE-BIG-2 again"]));
    assert!(
        wait_for(120, || std::fs::metadata(&ev)
            .is_ok_and(|m| m.len() > BIG as u64)
            && !torn(&ev)
            || child.try_wait().unwrap().is_some()),
        "the tool_call event never reached events.jsonl"
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before the kill"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!std::fs::read_to_string(sdir.join("conversation.jsonl"))
        .unwrap()
        .contains("big_write"));
    let ev_tail = cut_at(&ev, line_start(&ev, "\"type\":\"tool_call\"") + 1000);
    run.resume_and_check(&mock, "KILL", &[("events.jsonl", ev_tail, "torn line")]);
    let first_after = mock.requests().into_iter().rev().find(|r| {
        r["body"]["messages"]
            .to_string()
            .contains("AFTER-THE-CRASH")
    });
    let msgs = first_after.unwrap()["body"]["messages"].clone();
    assert!(
        msgs.to_string()
            .contains("WRITE-BIG-2 again\\n\\nAFTER-THE-CRASH"),
        "{msgs}"
    );

    // 3. The crash hit between the assistant line (with its tool call) and its results
    //    line: the file ends with a whole tool_use line nobody answered. It is moved to a
    //    side file on open, so neither the file nor a request has an orphan tool_use.
    let mut c = run.spawn(&["--session", "ORPHAN", "WRITE-BIG-3 once more"]);
    assert_eq!(wait_timeout(&mut c, 120).code(), Some(0));
    let conv = env.session_dir("ORPHAN").join("conversation.jsonl");
    let text = std::fs::read(&conv).unwrap();
    let start = line_start(&conv, "big_write") as usize;
    let end = start + text[start..].iter().position(|b| *b == b'\n').unwrap() + 1;
    let orphan = text[start..end].to_vec();
    std::fs::write(&conv, &text[..end]).unwrap();
    run.resume_and_check(
        &mock,
        "ORPHAN",
        &[("conversation.jsonl", orphan, "results were never written")],
    );
}
