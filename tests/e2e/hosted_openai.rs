//! OpenAI chat, the Responses API and DeepSeek through the real binary, at the official
//! hosts (the TLS + CONNECT-proxy path of `support/official.rs`, strict mock) and at a
//! custom base URL: a text turn, a tool loop with reasoning, a 10-turn session and a
//! resumed one; and the key → host rule with all three keys planted.
use crate::support::official::Official;
use crate::support::*;
use serde_json::Value;

const OPENAI_KEY: &str = "sk-fake-openai-OAIK";
const ANTHROPIC_KEY: &str = "sk-fake-anthropic-ANTK";
const DEEPSEEK_KEY: &str = "sk-fake-deepseek-DSKK";

fn tail(key: &str) -> &str {
    &key[key.len() - 4..]
}

/// A tool loop with reasoning: think + read a file, then think + answer.
fn tool_loop_script() -> &'static str {
    r#"[
      {"thinking":"I should read the notes.","tool_calls":[{"name":"Read","id":"call_a1","input":{"path":"notes.txt"}}]},
      {"thinking":"Now the second file.","tool_calls":[{"name":"Read","id":"call_a2","input":{"path":"notes.txt"}}]},
      {"thinking":"Done reading.","text":"The notes say hello."}
    ]"#
}

/// Run the binary through the official-host harness with the given keys and args.
fn run_official(
    env: &Env,
    off: &Official,
    keys: &[(&str, &str)],
    args: &[&str],
) -> std::process::Output {
    let mut c = env.cmd();
    off.apply(&mut c);
    for (k, v) in keys {
        c.env(k, v);
    }
    c.args(args);
    c.output().unwrap()
}

fn ok(o: &std::process::Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
}

/// Every request went to `host` at `path` with the key ending in `tail`.
fn all_to(reqs: &[Value], host: &str, path: &str, tail: &str) {
    assert!(!reqs.is_empty());
    for r in reqs {
        assert_eq!(r["headers"]["host"], host, "{r}");
        assert_eq!(r["path"], path, "{r}");
        assert_eq!(r["auth_tail"], tail, "{r}");
    }
}

#[test]
fn openai_chat_models_run_a_tool_loop_at_the_official_host() {
    // gpt-5.5 is the default; the others are the models issue 32 found failing.
    for model in ["", "gpt-5", "o3", "gpt-4o", "gpt-4.1"] {
        let env = Env::new();
        std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
        let off = Official::start(tool_loop_script());
        let mut args = vec!["-p", "openai", "--session", "s1"];
        if !model.is_empty() {
            args.extend(["-m", model]);
        }
        args.push("read the notes");
        let o = run_official(&env, &off, &[("OPENAI_API_KEY", OPENAI_KEY)], &args);
        ok(&o, model);
        let reqs = off.mock.requests();
        assert_eq!(reqs.len(), 3, "{model}");
        all_to(
            &reqs,
            "api.openai.com",
            "/v1/chat/completions",
            tail(OPENAI_KEY),
        );
        let b = &reqs[0]["body"];
        let want = if model.is_empty() { "gpt-5.5" } else { model };
        assert_eq!(b["model"], want);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert!(stdout(&o).contains("The notes say hello."), "{model}");
        // Usage came from the server, not an estimate.
        let conv = env.read("s1", "conversation.jsonl");
        assert_eq!(conv.lines().count(), 6, "{model}: {conv}");
    }
}

#[test]
fn responses_gpt_5_5_replays_encrypted_reasoning_and_resumes() {
    let env = Env::new();
    std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
    let off = Official::start(
        r#"[
      {"thinking":"I should read the notes.","tool_calls":[{"name":"Read","id":"call_r1","input":{"path":"notes.txt"}}]},
      {"thinking":"Once more.","tool_calls":[{"name":"Read","id":"call_r2","input":{"path":"notes.txt"}}]},
      {"thinking":"Done.","text":"The notes say hello."},
      {"when":"and now?","thinking":"Again.","tool_calls":[{"name":"Read","id":"call_r3","input":{"path":"notes.txt"}}]},
      {"when":"and now?","text":"Still hello."}
    ]"#,
    );
    let keys = [("OPENAI_API_KEY", OPENAI_KEY)];
    let o = run_official(
        &env,
        &off,
        &keys,
        &["-p", "responses", "--session", "r1", "read"],
    );
    ok(&o, "first turn");
    let reqs = off.mock.requests();
    all_to(&reqs, "api.openai.com", "/v1/responses", tail(OPENAI_KEY));
    let b = &reqs[1]["body"];
    assert_eq!(b["store"], false);
    assert_eq!(b["include"][0], "reasoning.encrypted_content");
    // The stored line keeps the encrypted item for later runs.
    let conv = env.read("r1", "conversation.jsonl");
    assert!(conv.contains("\"responses_reasoning\""), "{conv}");
    assert!(conv.contains("gAAAAmock-"), "{conv}");
    // Resumed in a new process: the old items are replayed (strict mode would refuse the
    // tool loop otherwise).
    let o = run_official(
        &env,
        &off,
        &keys,
        &["-p", "responses", "--session", "r1", "and now?"],
    );
    ok(&o, "resumed turn");
    assert!(stdout(&o).contains("Still hello."));
    let reqs = off.mock.requests();
    assert_eq!(reqs.len(), 5);
    let input = reqs[4]["body"]["input"].as_array().unwrap();
    let reasoning = input.iter().filter(|i| i["type"] == "reasoning").count();
    assert_eq!(reasoning, 4, "{input:?}");
}

#[test]
fn responses_with_only_a_deepseek_key_goes_to_deepseek() {
    let env = Env::new();
    std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
    let off = Official::start(tool_loop_script());
    let o = run_official(
        &env,
        &off,
        &[("DEEPSEEK_API_KEY", DEEPSEEK_KEY)],
        &["-p", "responses", "--session", "d1", "read"],
    );
    ok(&o, "deepseek responses");
    let reqs = off.mock.requests();
    assert_eq!(reqs.len(), 3);
    all_to(&reqs, "api.deepseek.com", "/responses", tail(DEEPSEEK_KEY));
    assert_eq!(reqs[0]["body"]["model"], "deepseek-v4-flash");
    assert!(reqs[2]["body"]["input"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["type"] == "reasoning"));
}

#[test]
fn deepseek_chat_tool_loop_passes_reasoning_content_back() {
    let env = Env::new();
    std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
    let off = Official::start(tool_loop_script());
    let o = run_official(
        &env,
        &off,
        &[("DEEPSEEK_API_KEY", DEEPSEEK_KEY)],
        &["-p", "openai", "--session", "d2", "read"],
    );
    ok(&o, "deepseek chat");
    let reqs = off.mock.requests();
    all_to(
        &reqs,
        "api.deepseek.com",
        "/chat/completions",
        tail(DEEPSEEK_KEY),
    );
    assert_eq!(reqs[0]["body"]["thinking"]["type"], "enabled");
}

#[test]
fn deepseek_key_alone_uses_the_anthropic_v1_messages_path() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"hi from deepseek"}]"#);
    let o = run_official(
        &env,
        &off,
        &[("DEEPSEEK_API_KEY", DEEPSEEK_KEY)],
        &["hello"],
    );
    ok(&o, "deepseek anthropic");
    all_to(
        &off.mock.requests(),
        "api.deepseek.com",
        "/anthropic/v1/messages",
        tail(DEEPSEEK_KEY),
    );
}

#[test]
fn each_key_goes_only_to_its_own_host() {
    let keys = [
        ("ANTHROPIC_API_KEY", ANTHROPIC_KEY),
        ("OPENAI_API_KEY", OPENAI_KEY),
        ("DEEPSEEK_API_KEY", DEEPSEEK_KEY),
    ];
    // The first case is the claude default at api.anthropic.com, which the harness's
    // strict mock checks with the Anthropic rules (BASH_AGENT_MOCK_STRICT).
    let cases: [(&[&str], &str, &str, &str); 6] = [
        (&[], "api.anthropic.com", "/v1/messages", ANTHROPIC_KEY),
        (
            &["-p", "openai"],
            "api.openai.com",
            "/v1/chat/completions",
            OPENAI_KEY,
        ),
        (
            &["-p", "responses"],
            "api.openai.com",
            "/v1/responses",
            OPENAI_KEY,
        ),
        (
            &["-p", "openai", "-m", "deepseek-v4-flash"],
            "api.deepseek.com",
            "/chat/completions",
            DEEPSEEK_KEY,
        ),
        (
            &["-p", "responses", "-m", "deepseek-v4-pro"],
            "api.deepseek.com",
            "/responses",
            DEEPSEEK_KEY,
        ),
        (
            &["-m", "deepseek-v4-flash"],
            "api.deepseek.com",
            "/anthropic/v1/messages",
            DEEPSEEK_KEY,
        ),
    ];
    for (args, host, path, key) in cases {
        let env = Env::new();
        let off = Official::start(r#"[{"text":"ok","repeat":true}]"#);
        let mut a = args.to_vec();
        a.push("hello");
        let o = run_official(&env, &off, &keys, &a);
        ok(&o, &format!("{args:?}"));
        all_to(&off.mock.requests(), host, path, tail(key));
        assert_eq!(off.connects(), vec![format!("{host}:443")], "{args:?}");
    }
}

#[test]
fn an_untrusted_certificate_fails_at_once_naming_ssl_cert_file() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"never"}]"#);
    let mut c = env.cmd();
    c.env("HTTPS_PROXY", &off.proxy_url) // no SSL_CERT_FILE: the test CA is unknown
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .args(["-p", "openai", "hello"]);
    let o = c.output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("SSL_CERT_FILE"), "{}", stderr(&o));
    assert_eq!(off.connects().len(), 1, "no retry of a certificate error");
    assert_eq!(off.mock.requests().len(), 0);
}

/// Ten turns in one session, each a new process continuing it (a resume every time), at a
/// custom base URL (strict mode's structural rules still apply) and at the official host.
#[test]
fn ten_turn_sessions_for_chat_and_responses() {
    for (p, official) in [
        ("openai", false),
        ("responses", false),
        ("openai", true),
        ("responses", true),
    ] {
        let env = Env::new();
        std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
        let mut steps = Vec::new();
        for i in 0..10 {
            steps.push(format!(
                r#"{{"when":"turn {i} ","thinking":"t{i}","tool_calls":[{{"name":"Read","id":"c{i}","input":{{"path":"notes.txt"}}}}]}},{{"when":"turn {i} ","thinking":"u{i}","text":"answer {i}"}}"#
            ));
        }
        let script = format!("[{}]", steps.join(","));
        let off = official.then(|| Official::start(&script));
        let local =
            (!official).then(|| Mock::start_env(&script, &[("BASH_AGENT_MOCK_STRICT", "1")]));
        for i in 0..10 {
            let mut c = env.cmd();
            c.args(["-p", p, "-m", "gpt-5.5", "--session", "ten"]);
            match (&off, &local) {
                (Some(off), _) => {
                    off.apply(&mut c);
                    c.env("OPENAI_API_KEY", OPENAI_KEY);
                }
                (_, Some(m)) => {
                    c.args([
                        "--base-url",
                        &format!("{}/v1", m.url),
                        "--api-key",
                        OPENAI_KEY,
                    ]);
                }
                _ => unreachable!(),
            }
            c.arg(format!("turn {i} please"));
            let o = c.output().unwrap();
            ok(&o, &format!("{p} official={official} turn {i}"));
            assert!(stdout(&o).contains(&format!("answer {i}")), "{p} {i}");
        }
        let reqs = match (&off, &local) {
            (Some(off), _) => off.mock.requests(),
            (_, Some(m)) => m.requests(),
            _ => unreachable!(),
        };
        assert_eq!(reqs.len(), 20, "{p}");
        let conv = env.read("ten", "conversation.jsonl");
        assert_eq!(conv.lines().count(), 40, "{p}");
        // The strict server's prefix-cache simulation reports cached tokens in OpenAI's
        // fields; the agent reads them as cache reads.
        let (mut read, mut all) = (0u64, 0u64);
        for l in env.read("ten", "events.jsonl").lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            if v["type"] == "usage" && v["kind"] == "agent" {
                read += v["cache_read_input_tokens"].as_u64().unwrap();
                all += v["cache_read_input_tokens"].as_u64().unwrap()
                    + v["input_tokens"].as_u64().unwrap();
            }
        }
        assert!(
            read * 2 > all,
            "{p} official={official}: {read}/{all} read from cache"
        );
        if p == "responses" {
            // Every tool call of every turn was sent back with its reasoning item.
            let input = reqs[19]["body"]["input"].as_array().unwrap();
            let n = input.iter().filter(|i| i["type"] == "reasoning").count();
            assert_eq!(n, 19, "{p} official={official}");
        }
    }
}

/// A text turn, then a tool loop with reasoning in the same session (resumed), for each
/// model of the matrix at a custom base URL (the strict server's structural rules).
#[test]
fn text_turn_then_resumed_tool_loop_for_each_model_at_a_custom_base() {
    let matrix = [
        ("openai", "gpt-5.5"),
        ("openai", "gpt-5"),
        ("openai", "o3"),
        ("openai", "gpt-4o"),
        ("openai", "gpt-4.1"),
        ("responses", "gpt-5.5"),
        ("responses", "deepseek-v4-flash"),
    ];
    for (p, m) in matrix {
        let env = Env::new();
        std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
        let mock = Mock::start_env(
            r#"[
              {"when":"say hi","text":"Hi there."},
              {"when":"now read","thinking":"Read it.","tool_calls":[{"name":"Read","id":"call_m1","input":{"path":"notes.txt"}}]},
              {"when":"now read","thinking":"Done.","text":"It says hello."}
            ]"#,
            &[("BASH_AGENT_MOCK_STRICT", "1")],
        );
        for (prompt, want) in [("say hi", "Hi there."), ("now read", "It says hello.")] {
            let o = env
                .cmd()
                .args(["-p", p, "-m", m, "--base-url", &format!("{}/v1", mock.url)])
                .args(["--api-key", OPENAI_KEY, "--session", "mx", prompt])
                .output()
                .unwrap();
            ok(&o, &format!("{p} {m} {prompt}"));
            assert!(stdout(&o).contains(want), "{p} {m}");
        }
        let reqs = mock.requests();
        assert_eq!(reqs.len(), 3, "{p} {m}");
        for r in &reqs {
            assert_eq!(r["body"]["model"], m);
            assert_eq!(
                r["path"],
                if p == "openai" {
                    "/v1/chat/completions"
                } else {
                    "/v1/responses"
                }
            );
        }
    }
}

/// A session whose tool call has no stored reasoning item (written before items were kept)
/// is not stuck at DeepSeek's Responses API: its thinking text goes back as the item.
#[test]
fn an_old_deepseek_session_without_items_is_not_stuck() {
    let env = Env::new();
    let s = env.session("old");
    std::fs::write(
        s.conversation(),
        concat!(
            r#"{"role":"user","content":"read it"}"#, "\n",
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"I will read."},{"type":"text","text":""},{"type":"tool_use","id":"call_o1","name":"Read","input":{"path":"notes.txt"}}]}"#, "\n",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_o1","content":"hello"}]}"#, "\n",
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":"It says hello."}]}"#, "\n",
        ),
    )
    .unwrap();
    let off = Official::start(r#"[{"text":"Still here."}]"#);
    let o = run_official(
        &env,
        &off,
        &[("DEEPSEEK_API_KEY", DEEPSEEK_KEY)],
        &["-p", "responses", "--session", "old", "go on"],
    );
    ok(&o, "old session");
    assert!(stdout(&o).contains("Still here."));
    let input = off.mock.requests()[0]["body"]["input"].clone();
    assert!(input.to_string().contains("I will read."), "{input}");
}

/// A reasoning model the table does not know, at api.openai.com on default flags: sent
/// `max_tokens`, refused by name ("Use 'max_completion_tokens' instead"), retried once
/// with `max_completion_tokens`, `stream_options` kept (usage from the server).
#[test]
fn an_unknown_reasoning_model_is_retried_with_max_completion_tokens() {
    let env = Env::new();
    let script = serde_json::json!({
        "models": [{"id": "gpt-6-preview", "vendor": "openai", "reasoning": true,
                    "effort": ["low", "medium", "high"], "max_output": 128000, "context_window": 400000}],
        "steps": [{"text": "Six says hi."}]
    });
    let off = Official::start(&script.to_string());
    let o = run_official(
        &env,
        &off,
        &[("OPENAI_API_KEY", OPENAI_KEY)],
        &[
            "-p",
            "openai",
            "-m",
            "gpt-6-preview",
            "--session",
            "g6",
            "hi",
        ],
    );
    ok(&o, "gpt-6-preview");
    assert!(stdout(&o).contains("Six says hi."));
    let reqs = off.mock.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[0]["body"].get("max_tokens").is_some());
    let b = &reqs[1]["body"];
    assert!(b.get("max_tokens").is_none(), "{b}");
    assert!(b["max_completion_tokens"].as_u64().is_some(), "{b}");
    assert_eq!(b["stream_options"]["include_usage"], true);
}
