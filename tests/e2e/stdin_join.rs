//! Piped stdin with a prompt: the text is joined to the prompt as context (what the model is
//! sent, as the mock server records it); without a prompt it is the prompt; past 10 MB it is
//! refused with a usage error.
use crate::support::*;
use std::io::Write;
use std::process::Stdio;

fn run_with_stdin(env: &Env, url: &str, args: &[&str], input: Vec<u8>) -> std::process::Output {
    let mut c = env.cmd();
    c.args(["--base-url", url, "--api-key", "k"]).args(args);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut ch = c.spawn().unwrap();
    let mut w = ch.stdin.take().unwrap();
    // The child may stop reading (the size cap): a broken pipe here is expected.
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(&input);
    });
    let out = ch.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn first_user_text(mock: &Mock) -> String {
    let reqs = mock.requests();
    let body = &reqs[0]["body"];
    let msgs = body["messages"].as_array().unwrap();
    let content = &msgs[0]["content"];
    checks::content_text(content)
}

#[test]
fn piped_stdin_is_joined_to_the_prompt() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"looks fine","usage":{"input":1,"output":1}}]"#);
    let diff = b"diff --git a/x b/x\n-old line\n+new line\n".to_vec();
    let out = run_with_stdin(
        &env,
        &mock.base("claude"),
        &["--session", "d", "review this"],
        diff,
    );
    expect_code(&out, 0);
    let sent = first_user_text(&mock);
    assert!(sent.starts_with("review this"), "{sent}");
    assert!(
        sent.contains("<stdin>\ndiff --git a/x b/x\n-old line\n+new line\n</stdin>"),
        "{sent}"
    );
    let evs = events(&env.session_dir("d").join("events.jsonl"));
    let ui = evs.iter().find(|e| e["type"] == "user_input").unwrap();
    assert!(ui["content"].as_str().unwrap().contains("+new line"));
}

#[test]
fn piped_stdin_without_a_prompt_is_the_prompt() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok","usage":{"input":1,"output":1}}]"#);
    let out = run_with_stdin(&env, &mock.base("claude"), &[], b"just this\n".to_vec());
    expect_code(&out, 0);
    let sent = first_user_text(&mock);
    assert!(
        sent.contains("just this") && !sent.contains("<stdin>"),
        "{sent}"
    );
}

#[test]
fn stdin_past_10_mb_is_refused() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"never","usage":{"input":1,"output":1}}]"#);
    let big = vec![b'a'; 10 * 1024 * 1024 + 1];
    let out = run_with_stdin(&env, &mock.base("claude"), &["summarise"], big);
    expect_code(&out, 2);
    assert!(
        stderr(&out).contains("stdin is larger than 10 MB"),
        "{}",
        stderr(&out)
    );
    assert!(mock.requests().is_empty());
    // Exactly 10 MB is accepted.
    let ok = vec![b'b'; 10 * 1024 * 1024];
    let mock2 = Mock::start(r#"[{"text":"fine","usage":{"input":1,"output":1}}]"#);
    let out = run_with_stdin(&env, &mock2.base("claude"), &["summarise"], ok);
    expect_code(&out, 0);
}
