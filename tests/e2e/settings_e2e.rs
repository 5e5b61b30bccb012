//! Settings files through the real binary: `bash-agent config --json` reports each effective
//! value and its origin under flags > env > local > project > user > defaults; a malformed
//! file is a usage error naming file, line and column; unknown keys warn; a run uses them.
use crate::support::*;
use serde_json::Value;

fn config_json(env: &Env, extra_env: &[(&str, &str)], args: &[&str]) -> Value {
    let mut c = env.cmd();
    c.arg("config").arg("--json").args(args);
    for (k, v) in extra_env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    expect_code(&out, 0);
    serde_json::from_str(stdout(&out).trim()).unwrap()
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// (user, project, local, env EFFORT, flag --effort, expected value, expected source)
type Case = (
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    &'static str,
    &'static str,
);

#[test]
fn precedence_flags_env_local_project_user_default() {
    let env = Env::new();
    let user = env.home.join(".bash-agent/settings.json");
    let project = env.cwd.join(".bash-agent/settings.json");
    let local = env.cwd.join(".bash-agent/settings.local.json");
    // (user, project, local, env EFFORT, flag --effort) → (value, source)
    let cases: &[Case] = &[
        // No effort asked for: none is sent (a local server may reject the field).
        (None, None, None, None, None, "", "default"),
        (Some("low"), None, None, None, None, "low", "user settings"),
        (
            Some("low"),
            Some("medium"),
            None,
            None,
            None,
            "medium",
            "project settings",
        ),
        (
            Some("low"),
            Some("medium"),
            Some("xhigh"),
            None,
            None,
            "xhigh",
            "local settings",
        ),
        (
            Some("low"),
            Some("medium"),
            Some("xhigh"),
            Some("max"),
            None,
            "max",
            "env EFFORT",
        ),
        (
            Some("low"),
            Some("medium"),
            Some("xhigh"),
            Some("max"),
            Some("low"),
            "low",
            "flag",
        ),
        (
            None,
            Some("medium"),
            None,
            None,
            None,
            "medium",
            "project settings",
        ),
        (
            Some("low"),
            None,
            Some("max"),
            None,
            None,
            "max",
            "local settings",
        ),
    ];
    for (i, (u, p, l, e, f, want, src)) in cases.iter().enumerate() {
        for (path, v) in [(&user, u), (&project, p), (&local, l)] {
            match v {
                Some(v) => write(path, &format!(r#"{{"effort":"{v}"}}"#)),
                None => {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
        let envs: Vec<(&str, &str)> = e.iter().map(|v| ("EFFORT", *v)).collect();
        let args: Vec<&str> = f.iter().flat_map(|v| ["--effort", *v]).collect();
        let c = config_json(&env, &envs, &args);
        if want.is_empty() {
            assert!(c["effort"]["value"].is_null(), "case {i}: {c}");
        } else {
            assert_eq!(c["effort"]["value"], *want, "case {i}: {c}");
        }
        assert_eq!(c["effort"]["source"], *src, "case {i}: {c}");
    }
}

#[test]
fn settings_files_feed_the_run_and_config_names_them() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok","usage":{"input":1,"output":1}}]"#);
    // A subfolder of a git repository: the project settings live at the root.
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    let sub = env.cwd.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    write(
        &env.cwd.join(".bash-agent/settings.json"),
        &format!(
            r#"{{"base_url":"{}","model":"from-project","api_key_env":"MY_GATEWAY_KEY","max_tokens":"2k","sandbox":{{"mode":"read-only"}}}}"#,
            mock.base("claude")
        ),
    );
    // (trusted: an untrusted folder's base_url and api_key_env are ignored, tests/e2e/trust.rs)
    env.trust_project();
    let mut c = env.cmd_in(&sub, &["--output-format", "stream-json", "hi"]);
    c.env("MY_GATEWAY_KEY", "sk-gw-PLANTED");
    let out = c.output().unwrap();
    expect_code(&out, 0);
    let init: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(init["model"], "from-project");
    assert_eq!(init["sandbox"], "read-only");
    let req = &mock.requests()[0];
    assert_eq!(req["body"]["model"], "from-project");
    assert_eq!(req["body"]["max_tokens"], 2000);
    assert_eq!(req["headers"]["x-api-key"], "<redacted>", "a key was sent");
    let mut c = env.cmd_in(&sub, &["config"]);
    c.env("MY_GATEWAY_KEY", "sk-gw-PLANTED");
    let out = c.output().unwrap();
    expect_code(&out, 0);
    let text = stdout(&out);
    assert!(
        !text.contains("PLANTED"),
        "the key is never printed: {text}"
    );
    assert!(text.contains("from-project  (project settings "), "{text}");
    assert!(text.contains("env MY_GATEWAY_KEY (api_key_env)"), "{text}");
}

#[test]
fn malformed_settings_is_a_usage_error_with_line_and_column() {
    let env = Env::new();
    let path = env.cwd.join(".bash-agent/settings.local.json");
    write(&path, "{\n  \"model\": \"x\",\n  \"effort\": ,\n}\n");
    for args in [vec!["config"], vec!["--api-key", "k", "hi"]] {
        let out = env.run(&args);
        expect_code(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{}:3:13: malformed settings", path.display())),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn unknown_keys_warn_and_are_ignored() {
    let env = Env::new();
    write(
        &env.home.join(".bash-agent/settings.json"),
        r#"{"modle":"typo","effort":"low"}"#,
    );
    let out = env.run(&["config", "--json"]);
    expect_code(&out, 0);
    assert!(
        stderr(&out).contains("unknown key \"modle\""),
        "{}",
        stderr(&out)
    );
    let c: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(c["effort"]["value"], "low");
    assert_eq!(c["warnings"].as_array().unwrap().len(), 1);
}
