//! Hostile network edges (issue 42): a model API that redirects, a base URL carrying a
//! password, `api.openai.com.` with its trailing dot. Through the real binary and the
//! scripted mock.
use crate::support::*;
use std::process::Stdio;

fn run(env: &Env, provider: &str, base: &str) -> (i32, String) {
    let out = env
        .cmd()
        .args(["--provider", provider, "--base-url", base])
        .args(["--api-key", "sk-ant-PLANTED-KEY-42", "hello"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), err)
}

/// A 302 to another origin is an error (exit 1): nothing reaches the other host, least of
/// all the key, and no answer is stored as the model's.
#[test]
fn a_redirecting_model_api_is_an_error_and_the_key_stays_home() {
    for provider in ["claude", "openai", "responses"] {
        let other = Mock::start(r#"[{"text":"ANSWER FROM ELSEWHERE","repeat":true}]"#);
        let script = format!(
            r#"[{{"status":302,"location":"{}/v1/messages","repeat":true}}]"#,
            other.url
        );
        let api = Mock::start(&script);
        let env = Env::new();
        let (code, err) = run(&env, provider, &api.base(provider));
        assert_eq!(code, 1, "{provider}: {err}");
        assert!(err.contains("redirects to"), "{provider}: {err}");
        assert!(
            other.requests().is_empty(),
            "{provider}: followed the redirect"
        );
        assert_eq!(api.requests().len(), 1, "{provider}: a 3xx is not retried");
        let evs = std::fs::read_to_string(
            std::fs::read_dir(env.project_dir())
                .unwrap()
                .flatten()
                .next()
                .unwrap()
                .path()
                .join("events.jsonl"),
        )
        .unwrap();
        assert!(!evs.contains("ANSWER FROM ELSEWHERE"), "{evs}");
        assert!(evs.contains("redirects to"), "{evs}");
    }
}

/// The whole events.jsonl text of the one session in `env`.
fn events_text(env: &Env) -> String {
    let mut all = String::new();
    for d in std::fs::read_dir(env.project_dir()).unwrap().flatten() {
        all.push_str(&std::fs::read_to_string(d.path().join("events.jsonl")).unwrap_or_default());
    }
    all
}

/// A base URL with a password: neither stderr nor events.jsonl shows it, whether the
/// server answers an error or nothing listens.
#[test]
fn a_base_url_password_is_never_shown() {
    let api = Mock::start(r#"[{"status":401,"message":"bad key","repeat":true}]"#);
    let port = api.url.rsplit(':').next().unwrap().to_string();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    drop(closed);
    for (base, what) in [
        (
            format!("http://me:hunter2-SECRET@127.0.0.1:{port}/v1"),
            "401",
        ),
        (
            format!("http://me:hunter2-SECRET@127.0.0.1:{closed_port}/v1"),
            "refused",
        ),
    ] {
        let env = Env::new();
        let (code, err) = run(&env, "claude", &base);
        assert_eq!(code, 1, "{what}: {err}");
        assert!(err.contains("me:***@127.0.0.1"), "{what}: {err}");
        assert!(!err.contains("hunter2"), "{what}: {err}");
        let evs = events_text(&env);
        assert!(evs.contains("me:***@127.0.0.1"), "{what}: {evs}");
        assert!(!evs.contains("hunter2"), "{what}: {evs}");
        let show = env
            .cmd()
            .args(["--base-url", &base, "config"])
            .output()
            .unwrap();
        assert!(!stdout(&show).contains("hunter2"), "{}", stdout(&show));
    }
}

/// A base URL with a password reaches a sub-agent through the internal variable, never its
/// argv (where `ps` shows it), and no tool's environment holds it.
#[test]
fn a_base_url_password_stays_out_of_argv_and_tool_env() {
    let script = serde_json::json!([
        // The parent's later calls name the child's prompt too: this step comes first.
        {"when": "Sub-agent started", "text": "waiting", "repeat": true},
        // Held for a while so the child's argv can be read meanwhile.
        {"when": "qqchild", "head_delay_ms": 1500, "tool_calls": [{"name": "Bash", "id": "c1",
            "input": {"command": "env | grep -c BASE_URL || true"}}]},
        {"when": "qqparent", "tool_calls": [{"name": "SubAgent", "id": "s1",
            "input": {"prompt": "qqchild run the probe", "description": "probe"}}]},
        {"text": "done", "repeat": true}
    ]);
    let api = Mock::start(&script.to_string());
    let port = api.url.rsplit(':').next().unwrap().to_string();
    let env = Env::new();
    let mut child = env
        .cmd()
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://me:hunter2-SECRET@127.0.0.1:{port}/v1"),
        )
        .env("ANTHROPIC_API_KEY", "sk-ant-PLANTED-KEY-42")
        .args(["--permission-mode", "bypass", "qqparent"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sub_argv = || {
        std::fs::read_dir("/proc").unwrap().flatten().find_map(|d| {
            let c = std::fs::read(d.path().join("cmdline")).ok()?;
            let c = String::from_utf8_lossy(&c).replace('\0', " ");
            (c.contains("--sub-agent-notify") && c.contains("qqchild")).then_some(c)
        })
    };
    let mut argv = None;
    wait_until("the sub-agent to start", 30, || {
        argv = sub_argv();
        argv.is_some()
    });
    let st = crate::support::checks::wait_timeout(&mut child, 60);
    assert!(st.success(), "{st:?}");
    let argv = argv.unwrap();
    assert!(
        !argv.contains("hunter2") && !argv.contains("--base-url"),
        "{argv}"
    );
    let probe = api
        .requests()
        .iter()
        .map(|r| r["body"].to_string())
        .find(|b| b.contains("\"tool_use_id\":\"c1\""))
        .expect("the child's probe result");
    assert!(
        probe.contains("\"content\":\"0\""),
        "a tool saw BASE_URL: {probe}"
    );
}
