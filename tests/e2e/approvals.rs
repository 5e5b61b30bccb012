//! Issue 39 through the real binary, headless in `--permission-mode default` (a call that
//! would ask is refused): the state-changing git and file commands of the issue are
//! refused and change nothing; rules a person saved in the project ("always" on a loop, on
//! `echo`, on an assignment) cannot be bypassed by a substitution, an assignment or a loop
//! body; reads and what the rules really allow run.
use super::trust_paths::{agent, clone_project, tool_result};
use crate::support::checks::assert_no_panic;
use crate::support::*;
use std::process::Stdio;

fn git(env: &Env, args: &[&str]) {
    let st = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(&env.cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "git {args:?}");
}

#[test]
fn saved_rules_and_state_changing_commands_are_not_bypassed() {
    let env = Env::new();
    clone_project(
        &env,
        &[
            ("tracked.txt", "committed\n"),
            ("victim1.txt", "1\n"),
            ("victim2.txt", "2\n"),
            ("victim3.txt", "3\n"),
            ("victim4.txt", "4\n"),
        ],
    );
    git(&env, &["add", "."]);
    git(&env, &["commit", "-q", "-m", "init"]);
    std::fs::write(env.cwd.join("tracked.txt"), "UNCOMMITTED-EDIT\n").unwrap();
    let settings = env.cwd.join(".bash-agent/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"permissions":{"allow":["Bash(for:*)","Bash(do echo:*)","Bash(done)","Bash(echo:*)","Bash(FOO=1:*)","Bash(git status:*)"]}}"#,
    )
    .unwrap();
    env.trust_project();
    let refused = [
        ("b1", "for f in $(rm victim1.txt); do echo $f; done"),
        ("b2", "echo $(rm victim2.txt)"),
        ("b3", "FOO=1 rm victim3.txt"),
        ("b4", "git status && xargs rm <<< victim4.txt"),
        ("g1", "git reset --hard"),
        ("g2", "git clean -fdx"),
        ("g3", "git -c alias.x='!touch pwned' x"),
    ];
    let allowed = [
        ("r1", "echo ALLOWED-BY-RULE"),
        ("r2", "for i in 1 2; do echo LOOP-$i; done"),
        ("r3", "git status --short"),
    ];
    let calls: Vec<serde_json::Value> = refused
        .iter()
        .chain(allowed.iter())
        .map(|(id, c)| serde_json::json!({"name": "Bash", "id": id, "input": {"command": c}}))
        .collect();
    let mock = Mock::start(
        &serde_json::json!([{"tool_calls": calls}, {"text": "done", "repeat": true}]).to_string(),
    );
    let out = agent(
        &env,
        &mock,
        &["--session", "t", "--permission-mode", "default", "go"],
    );
    expect_code(&out, 0);
    assert_no_panic(&stderr(&out));
    for (id, c) in refused {
        let r = tool_result(&env, "t", id);
        assert!(r.contains("Permission denied"), "{c}: {r}");
        assert!(r.contains("cannot ask (headless)"), "{c}: {r}");
    }
    for v in ["victim1.txt", "victim2.txt", "victim3.txt", "victim4.txt"] {
        assert!(env.cwd.join(v).exists(), "{v} was deleted");
    }
    assert!(!env.cwd.join("pwned").exists());
    assert!(settings.exists(), "git clean did not run");
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("tracked.txt")).unwrap(),
        "UNCOMMITTED-EDIT\n",
        "git reset --hard did not run"
    );
    assert!(tool_result(&env, "t", "r1").contains("ALLOWED-BY-RULE"));
    let loop_out = tool_result(&env, "t", "r2");
    assert!(
        loop_out.contains("LOOP-1") && loop_out.contains("LOOP-2"),
        "{loop_out}"
    );
    assert!(tool_result(&env, "t", "r3").contains("tracked.txt"));
}
