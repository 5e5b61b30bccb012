//! Settings keys a run applies, through the real binary and the scripted model server:
//! `prices` in the cost of a run, `permissions` rules and mode at the permission gate (and
//! in stream-json's init record), `tool_env_allow` at the tool environment's scrubbing.
use crate::support::*;
use serde_json::Value;

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn project_settings(env: &Env, text: &str) {
    write(&env.cwd.join(".bash-agent/settings.json"), text);
    env.trust_project();
}

fn bash_then_done(cmd: &str) -> String {
    serde_json::json!([
        {"tool_calls":[{"name":"Bash","id":"b1","input":{"command":cmd}}],"usage":{"input":1,"output":1}},
        {"text":"done","usage":{"input":1,"output":1}}
    ])
    .to_string()
}

fn tool_result(env: &Env, id: &str) -> String {
    let evs = events(&env.session_dir(id).join("events.jsonl"));
    evs.iter()
        .find(|e| e["type"] == "tool_result")
        .map(|e| e["content"].as_str().unwrap_or_default().to_string())
        .unwrap_or_else(|| panic!("no tool_result: {evs:?}"))
}

#[test]
fn a_price_in_project_settings_is_the_cost_of_the_run() {
    let env = Env::new();
    // config.json's entry for the model is overridden by the settings.
    write(
        &env.home.join(".bash-agent/config.json"),
        r#"{"prices":{"priced-model":{"input":100,"output":100}}}"#,
    );
    project_settings(
        &env,
        r#"{"prices":{"priced-model":{"input":2.0,"output":10.0,"cache_read":0.5}}}"#,
    );
    let mock =
        Mock::start(r#"[{"text":"ok","usage":{"input":1000,"output":200,"cache_read":400}}]"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--output-format",
            "json",
            "--model",
            "priced-model",
            "--session",
            "p",
            "hi",
        ],
    );
    expect_code(&out, 0);
    let r: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let want = (1000.0 * 2.0 + 200.0 * 10.0 + 400.0 * 0.5) / 1e6;
    let got = r["total_cost_usd"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    // `bash-agent usage` prices the session the same way.
    let out = env.run(&["usage", "--session", "p", "--json"]);
    expect_code(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("0.0042"), "{text}");
}

#[test]
fn a_deny_rule_in_settings_refuses_a_bash_call_headlessly() {
    let env = Env::new();
    std::fs::write(env.cwd.join("keep.txt"), "x\n").unwrap();
    project_settings(&env, r#"{"permissions":{"deny":["Bash(rm:*)"]}}"#);
    let mock = Mock::start(&bash_then_done("rm -f keep.txt"));
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "d", "clean"]);
    expect_code(&out, 0);
    assert!(env.cwd.join("keep.txt").exists(), "the command did not run");
    let res = tool_result(&env, "d");
    assert!(res.contains("denied by the rule Bash(rm:*)"), "{res}");
    // A malformed rule is a settings error naming the file.
    project_settings(&env, r#"{"permissions":{"deny":["Bash(rm"]}}"#);
    let out = env.run(&["--api-key", "k", "hi"]);
    expect_code(&out, 2);
    assert!(stderr(&out).contains("settings.json: permissions: deny: bad permission rule"));
}

#[test]
fn init_record_permission_mode_is_the_gates() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"repeat":true,"text":"ok","usage":{"input":1,"output":1}}]"#);
    let base = mock.base("claude");
    let mode = |extra_env: &[(&str, &str)], args: &[&str]| -> String {
        let mut c = env.cmd();
        c.args([
            "--base-url",
            &base,
            "--api-key",
            "k",
            "--output-format",
            "stream-json",
        ]);
        c.args(args).arg("hi");
        for (k, v) in extra_env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        expect_code(&out, 0);
        let init: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
        init["permission_mode"].as_str().unwrap().to_string()
    };
    // Headless without a mode: bypass.
    assert_eq!(mode(&[], &[]), "bypass");
    project_settings(&env, r#"{"permissions":{"mode":"accept-edits"}}"#);
    assert_eq!(mode(&[], &[]), "accept-edits");
    assert_eq!(mode(&[("BASH_AGENT_PERMISSION_MODE", "plan")], &[]), "plan");
    assert_eq!(
        mode(
            &[("BASH_AGENT_PERMISSION_MODE", "plan")],
            &["--permission-mode", "default"]
        ),
        "default"
    );
    // `bash-agent config` says where the mode comes from.
    let out = env.run(&["config", "--json"]);
    let c: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(c["permissions"]["value"]["mode"], "accept-edits", "{c}");
    assert_eq!(c["permissions"]["source"], "project settings");
    let mut cmd = env.cmd();
    cmd.args(["config", "--json"])
        .env("BASH_AGENT_PERMISSION_MODE", "plan");
    let c: Value = serde_json::from_str(stdout(&cmd.output().unwrap()).trim()).unwrap();
    assert_eq!(c["permissions"]["value"]["mode"], "plan", "{c}");
    assert_eq!(c["permissions"]["source"], "env BASH_AGENT_PERMISSION_MODE");
    // A mode the gate does not know is a settings error.
    project_settings(&env, r#"{"permissions":{"mode":"yolo"}}"#);
    let out = env.run(&["--api-key", "k", "hi"]);
    expect_code(&out, 2);
    assert!(
        stderr(&out).contains("unknown permission mode"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn settings_mode_applies_to_the_run() {
    let env = Env::new();
    project_settings(&env, r#"{"permissions":{"mode":"default"}}"#);
    let mock = Mock::start(&bash_then_done("touch made.txt"));
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "m", "go"]);
    expect_code(&out, 0);
    assert!(!env.cwd.join("made.txt").exists());
    let res = tool_result(&env, "m");
    assert!(res.contains("permission mode default"), "{res}");
}

#[test]
fn tool_env_allow_passes_named_variables_but_never_the_key() {
    let env = Env::new();
    project_settings(
        &env,
        r#"{"tool_env_allow":["MY_SERVICE_TOKEN","LEAK_TOKEN","ANTHROPIC_API_KEY"]}"#,
    );
    let mock = Mock::start(&bash_then_done(
        "echo \"A=$MY_SERVICE_TOKEN B=$OTHER_TOKEN C=$LEAK_TOKEN D=$ANTHROPIC_API_KEY.\"",
    ));
    let mut c = env.cmd();
    c.args([
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "sk-test-PLANTED",
    ]);
    c.args(["--session", "e", "show"]);
    c.env("MY_SERVICE_TOKEN", "svc-visible")
        .env("OTHER_TOKEN", "other-hidden")
        .env("LEAK_TOKEN", "sk-test-PLANTED")
        .env("ANTHROPIC_API_KEY", "sk-env-PLANTED-2");
    let out = c.output().unwrap();
    expect_code(&out, 0);
    let res = tool_result(&env, "e");
    assert!(res.contains("A=svc-visible B= C= D=."), "{res}");
    let err = stderr(&out);
    for n in ["LEAK_TOKEN", "ANTHROPIC_API_KEY"] {
        assert!(
            err.contains(&format!("tool_env_allow: {n} holds the provider key")),
            "{n}: {err}"
        );
    }
    assert!(!err.contains("MY_SERVICE_TOKEN holds"), "{err}");
}
