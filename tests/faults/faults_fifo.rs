//! 1,000 random and malformed RESP frames into the input.fifo of a `--listen` agent (the
//! scripted model answers every request): the agent logs an `error` event per malformed
//! frame, never crashes or panics, then a valid frame still starts a turn and SESSION_END
//! ends the agent with exit 0.

use crate::support::checks::*;
use crate::support::*;
use bash_agent::ipc::client::has_reader;
use bash_agent::ipc::resp::Frame;
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

const FRAMES: usize = 1000;

/// One hostile frame (always starting with `*`, so its bytes are frame material, not a
/// plain-text line), and how many malformed frames the agent must report for it.
fn hostile(r: &mut Rng) -> (Vec<u8>, usize) {
    let rand_bytes = |r: &mut Rng, n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| match r.next() as u8 {
                b'\n' | b'\r' => b'?',
                b => b,
            })
            .collect()
    };
    match r.below(11) {
        0 => {
            let h = ["*x", "*", "*-3", "* 2", "*2a", "*+1"][r.below(6) as usize];
            (format!("{h}\r\n").into_bytes(), 1)
        }
        1 => {
            let h = ["*0", "*4097", "*99999999999999"][r.below(3) as usize];
            (format!("{h}\r\n").into_bytes(), 1)
        }
        2 => (b"*2\r\n:5\r\nhello\r\n:1\r\nx\r\n".to_vec(), 1),
        3 => (b"*1\r\n$abc\r\nxyz\r\n".to_vec(), 1),
        4 => (b"*2\r\n$3\r\nabcdef\r\n$1\r\nx\r\n".to_vec(), 1),
        5 => (b"*1\r\n$67108865\r\n".to_vec(), 1),
        6 => (b"*1\r\n$3\r\nabcXY\r\n".to_vec(), 1),
        7 => {
            let mut v = b"*".to_vec();
            let n = 1 + r.below(60) as usize;
            v.extend(rand_bytes(r, n));
            v.extend(b"\r\n");
            // "*<digits>" alone would be a valid count header waiting for fields.
            let malformed = !v[1..v.len() - 2].iter().all(u8::is_ascii_digit);
            if !malformed {
                return (b"*x\r\n".to_vec(), 1);
            }
            (v, 1)
        }
        8 => {
            // Well formed, unknown type, binary fields: ignored, not an error.
            let n = r.below(200) as usize;
            let f = Frame(vec![
                b"JUNK_TYPE".to_vec(),
                (0..n).map(|_| r.next() as u8).collect(),
            ]);
            (f.encode(), 0)
        }
        9 => (Frame::new(["USER_INPUT", "0", ""]).encode(), 0),
        _ => {
            // A field header whose line never ends before the next frame starts.
            let mut v = b"*3\r\n$10\r\nUSER_INPUT\r\n$1\r\n0\r\n".to_vec();
            v.extend(b"*1\r\n");
            // Two: the frame cut by a frame start, and the `*1` frame cut by the next one.
            (v, 2)
        }
    }
}

/// events.jsonl stops changing for `quiet` and no turn runs.
fn settle(path: &std::path::Path, flag: &std::path::Path, quiet: Duration, max: Duration) {
    let t0 = Instant::now();
    let mut last = (0u64, Instant::now());
    while t0.elapsed() < max {
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if len != last.0 || flag.exists() {
            last = (len, Instant::now());
        } else if last.1.elapsed() >= quiet {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("the agent never went quiet");
}

#[test]
fn a_thousand_malformed_frames_then_a_valid_one() {
    let t0 = Instant::now();
    let env = Env::new();
    let mock = Mock::start(r#"[{"repeat":true,"text":"ok."}]"#);
    let errlog = env.dir.path().join("stderr.log");
    let mut agent = Guard(
        env.cmd()
            .args([
                "--provider",
                "claude",
                "--base-url",
                &mock.base("claude"),
                "--api-key",
                "sk-fifo",
            ])
            .args(["--session", "X", "--listen"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&errlog).unwrap())
            .spawn()
            .unwrap(),
    );
    let sdir = env.session_dir("X");
    let fifo = sdir.join("input.fifo");
    wait_until("the agent to serve input.fifo", 20, || has_reader(&fifo));

    let mut rng = Rng(0xf1f0_0bad);
    let mut expected_errors = 0;
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    for i in 0..FRAMES {
        let (bytes, malformed) = hostile(&mut rng);
        expected_errors += malformed;
        w.write_all(&bytes).unwrap();
        if i % 100 == 99 {
            assert!(
                agent.try_wait().unwrap().is_none(),
                "the agent died after {i} frames"
            );
        }
    }
    // Two frames that announce a long field and then go silent: each is cut off after the
    // reader's stall timeout instead of swallowing what comes next.
    w.write_all(b"*2\r\n$10\r\nUSER_INPUT\r\n$5000\r\nshort")
        .unwrap();
    drop(w);
    let ev = sdir.join("events.jsonl");
    settle(
        &ev,
        &sdir.join("agent_running.flag"),
        Duration::from_millis(1500),
        Duration::from_secs(60),
    );
    assert!(agent.try_wait().unwrap().is_none(), "the agent died");

    let evs = events(&ev);
    let errors: Vec<&str> = evs
        .iter()
        .filter(|e| e["type"] == "error")
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert!(
        errors
            .iter()
            .all(|m| m.contains("malformed frame") || m.contains("input.fifo")),
        "unexpected errors: {:?}",
        errors
            .iter()
            .filter(|m| !m.contains("malformed frame"))
            .collect::<Vec<_>>()
    );
    assert!(
        errors
            .iter()
            .all(|m| m.matches("malformed frame on input.fifo").count() <= 1),
        "prefix repeated: {:?}",
        errors[0]
    );
    // One report per malformed frame, plus one for the frame cut off by the stall, plus
    // at most one notice that plain lines are off (the random bytes are not text).
    let notices = errors
        .iter()
        .filter(|m| m.contains("plain lines are not read"))
        .count();
    assert!(notices <= 1, "{notices} notices");
    assert_eq!(
        errors.len(),
        expected_errors + 1 + notices,
        "error events vs malformed frames: {:?}",
        &errors[..errors.len().min(5)]
    );
    // Every hostile frame starts with `*`: none of their bytes may become a user input.
    let stray_turns = evs.iter().filter(|e| e["type"] == "user_input").count();
    assert_eq!(stray_turns, 0, "garbage became user input");

    // A valid frame still starts a turn.
    let marker = "VALID-AFTER-GARBAGE";
    bash_agent::ipc::fifo::write_frame(&fifo, &Frame::new(["USER_INPUT", "0", marker])).unwrap();
    wait_until("the valid frame to run a turn", 20, || {
        let e = events(&ev);
        let at = e
            .iter()
            .position(|x| x["type"] == "user_input" && x["content"] == marker);
        at.is_some_and(|i| e[i..].iter().filter(|x| x["type"] == "stop").count() >= 2)
    });
    assert!(mock.requests().last().unwrap()["body"]
        .to_string()
        .contains(marker));

    bash_agent::ipc::fifo::write_frame(&fifo, &Frame::new(["SESSION_END"])).unwrap();
    let st = wait_timeout(&mut agent, 20);
    assert_eq!(st.code(), Some(0));
    let err = std::fs::read_to_string(&errlog).unwrap();
    assert_no_panic(&err);
    check_tree(&env.home);
    check_conversation(&sdir.join("conversation.jsonl"));
    assert!(!fifo.exists(), "input.fifo left after SESSION_END");
    eprintln!(
        "{FRAMES} hostile frames: {expected_errors} malformed, {} error events, {stray_turns} stray turns, {:.1} s",
        errors.len(),
        t0.elapsed().as_secs_f64()
    );
}
