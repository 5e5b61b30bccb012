//! `--send TEXT --wait --output-format json` against a real `--listen` agent: the result
//! object of that one turn (its answer and the calls it made), nothing else on stdout.
use crate::support::*;
use bash_agent::ipc::client::has_reader;
use std::process::Stdio;

#[test]
fn send_wait_json_prints_the_turns_result() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"when":"first","text":"answer one","usage":{"input":7,"output":3}},
            {"when":"second","text":"answer two","usage":{"input":11,"output":5}}]"#,
    );
    let mut agent = env
        .cmd()
        .args(["--base-url", &mock.base("claude"), "--api-key", "k"])
        .args(["--session", "srv", "--listen"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let fifo = env.session_dir("srv").join("input.fifo");
    wait_until("the agent to serve input.fifo", 20, || has_reader(&fifo));
    let send = |text: &str| {
        env.run(&[
            "--session",
            "srv",
            "--send",
            text,
            "--wait",
            "--output-format",
            "json",
        ])
    };
    let one = send("first question");
    expect_code(&one, 0);
    let two = send("second question");
    expect_code(&two, 0);
    let _ = agent.kill();
    let _ = agent.wait();
    let so = stdout(&two);
    let lines: Vec<&str> = so.lines().collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let r: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(r["type"], "result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["result"], "answer two");
    assert_eq!(r["session_id"], "srv");
    assert_eq!(r["num_turns"], 1);
    assert_eq!(r["usage"]["input_tokens"], 11);
    assert_eq!(r["usage"]["output_tokens"], 5);
    assert_eq!(r["stop_reason"], "end_turn");
}
