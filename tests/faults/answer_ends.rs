//! How an answer can end badly, through the real binary, on all three providers:
//! - cut by max_tokens, by a stream that ends early, by a stall after content, or by the
//!   server being killed mid-stream: exit 1, and what arrived is stored, so the next turn
//!   sends an answered conversation (never two user messages in a row) and the model is not
//!   asked the old request again;
//! - an empty successful stream (no text, thinking or tool call): exit 1 with "the server
//!   returned an empty answer" and the stop reason, never 0 with nothing.
use crate::support::checks::assert_no_panic;
use crate::support::*;
use serde_json::Value;

const PROVIDERS: [&str; 3] = ["claude", "openai", "responses"];

/// The roles of the last request's messages never repeat `user` twice in a row, and the
/// request holds `needle` in an assistant message.
fn check_next_request(mock: &Mock, needle: &str, what: &str) {
    let req = mock.records().pop().expect("a request");
    let body = &req["body"];
    let msgs: Vec<&Value> = match body.get("messages").or_else(|| body.get("input")) {
        Some(Value::Array(a)) => a.iter().collect(),
        _ => panic!("{what}: no messages in {body}"),
    };
    let roles: Vec<&str> = msgs
        .iter()
        .filter_map(|m| m.get("role").and_then(Value::as_str))
        .filter(|r| *r != "system" && *r != "developer")
        .collect();
    assert!(
        !roles.windows(2).any(|w| w == ["user", "user"]),
        "{what}: two user messages in a row: {roles:?}\n{body}"
    );
    let assistant_text: String = msgs
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .map(|m| m.to_string())
        .collect();
    assert!(
        assistant_text.contains(needle),
        "{what}: the cut answer {needle:?} was not sent back\n{body}"
    );
}

fn run(env: &Env, url: &str, provider: &str, session: &str, prompt: &str) -> std::process::Output {
    let mut c = env.cmd();
    c.args([
        "--provider",
        provider,
        "--base-url",
        url,
        "--api-key",
        "sk-x",
        "--session",
        session,
        prompt,
    ])
    .env("BASH_AGENT_STALL_MS", "400");
    c.output().unwrap()
}

#[test]
fn a_cut_answer_is_stored_and_the_next_turn_continues_from_it() {
    for p in PROVIDERS {
        let env = Env::new();
        let mock = Mock::start(
            r#"[{"when":"qalpha","text":"Partial by max tokens","stop":"max_tokens"},
                {"when":"qbeta","text":"Partial by a cut","cut":true},
                {"when":"qgamma","text":"Partial by a stall","chunk":9,"stall_ms":4000},
                {"text":"Fine now.","repeat":true}]"#,
        );
        let url = mock.base(p);
        for (prompt, partial) in [
            ("qalpha question", "Partial by max tokens"),
            ("qbeta question", "Partial by a cut"),
            ("qgamma question", "Partial by a stall"),
        ] {
            let what = format!("{p}: {prompt}");
            let o = run(&env, &url, p, "s", prompt);
            assert_no_panic(&stderr(&o));
            assert_eq!(o.status.code(), Some(1), "{what}: {}", stderr(&o));
            assert!(
                env.read("s", "conversation.jsonl").contains(partial),
                "{what}: not stored"
            );
            let o = run(&env, &url, p, "s", "and then?");
            expect_code(&o, 0);
            check_next_request(&mock, partial, &what);
        }
        crate::support::checks::check_conversation(
            &env.session_dir("s").join("conversation.jsonl"),
        );
    }
}

#[test]
fn an_answer_cut_by_a_killed_server_is_stored() {
    for p in PROVIDERS {
        let env = Env::new();
        let slow: String = (1..=200).map(|i| format!("row {i:03}\n")).collect();
        let script = serde_json::json!([{"text": slow, "chunk": 8, "delay_ms": 30}]);
        let mock = Mock::start(&script.to_string());
        let mut c = env.cmd();
        c.args([
            "--provider",
            p,
            "--base-url",
            &mock.base(p),
            "--api-key",
            "sk-x",
            "--session",
            "k",
            "tell me slowly",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        let ev = env.session_dir("k").join("events.jsonl");
        wait_until("the answer streaming", 30, || {
            std::fs::read_to_string(&ev)
                .unwrap_or_default()
                .contains("row 002")
        });
        drop(mock);
        let st = crate::support::checks::wait_timeout(&mut child, 30);
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_no_panic(&err);
        assert_eq!(st.code(), Some(1), "{p}: {err}");
        assert!(
            env.read("k", "conversation.jsonl").contains("row 001"),
            "{p}: the partial answer was not stored"
        );
        let mock2 = Mock::start(r#"[{"text":"Back again.","repeat":true}]"#);
        let o = run(&env, &mock2.base(p), p, "k", "go on");
        expect_code(&o, 0);
        check_next_request(&mock2, "row 001", p);
    }
}

#[test]
fn an_empty_answer_is_a_failure() {
    for p in PROVIDERS {
        let env = Env::new();
        let mock = Mock::start(r#"[{"text":"","repeat":true}]"#);
        let o = run(&env, &mock.base(p), p, "e", "hello");
        assert_no_panic(&stderr(&o));
        assert_eq!(o.status.code(), Some(1), "{p}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("the server returned an empty answer (stop_reason=end_turn)"),
            "{p}: {}",
            stderr(&o)
        );
        let evs = events(&env.session_dir("e").join("events.jsonl"));
        assert!(
            evs.iter().any(|e| e["type"] == "error"
                && e["message"].as_str().unwrap_or("").contains("empty answer")),
            "{p}: {evs:?}"
        );
    }
}
