//! `--follow` in one process renders a turn that a `--listen` agent in another runs, and
//! ends when that agent ends (its lock is released).
use crate::support::*;
use bash_agent::ipc::client::has_reader;
use std::io::Read;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

fn follow_case(stream: bool) {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"when":"old","text":"OLD-ANSWER","usage":{"input":1,"output":1}},
            {"when":"live","text":"LIVE-ANSWER","usage":{"input":1,"output":1}}]"#,
    );
    let mut agent = env
        .cmd()
        .args(["--base-url", &mock.base("claude"), "--api-key", "k"])
        .args(["--session", "f", "--listen"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let fifo = env.session_dir("f").join("input.fifo");
    wait_until("the agent to serve input.fifo", 20, || has_reader(&fifo));
    expect_code(
        &env.run(&["--session", "f", "--send", "old question", "--wait"]),
        0,
    );
    let mut args = vec!["--session", "f", "--follow", "1"];
    if stream {
        args.extend(["--output-format", "stream-json"]);
    }
    let mut follower = env
        .cmd_in(&env.cwd, &args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let buf = Arc::new(Mutex::new(String::new()));
    let mut so = follower.stdout.take().unwrap();
    let b2 = buf.clone();
    let reader = std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = so.read(&mut chunk) {
            if n == 0 {
                break;
            }
            b2.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    });
    wait_until("the last turn replayed", 20, || {
        buf.lock().unwrap().contains("OLD-ANSWER")
    });
    expect_code(
        &env.run(&["--session", "f", "--send", "live question", "--wait"]),
        0,
    );
    wait_until("the live turn rendered", 20, || {
        buf.lock().unwrap().contains("LIVE-ANSWER")
    });
    let _ = agent.kill();
    let _ = agent.wait();
    let st = checks::wait_timeout(&mut follower, 20);
    assert_eq!(st.code(), Some(0));
    reader.join().unwrap();
    let text = buf.lock().unwrap().clone();
    assert!(text.contains("live question"), "{text}");
    if stream {
        for l in text.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(v["type"].is_string(), "{l}");
        }
    }
}

#[test]
fn follow_renders_a_live_turn_human() {
    follow_case(false);
}

#[test]
fn follow_renders_a_live_turn_stream_json() {
    follow_case(true);
}
