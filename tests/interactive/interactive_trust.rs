//! The trust question in a real terminal (tmux): the interactive mode in a cloned folder
//! whose project files would change something asks once before anything of them applies;
//! "only this run" trusts without storing, "no" is stored and the project's hook never runs
//! (docs/sandbox.md, "Trust").
use crate::support::tmux::{have_tmux, Run, Tmux};
use crate::support::*;

fn user_settings(env: &Env) -> serde_json::Value {
    std::fs::read_to_string(env.home.join(".bash-agent/settings.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

#[test]
fn the_question_is_asked_once_and_its_answer_applies() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let st = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&env.cwd)
        .status()
        .expect("git");
    assert!(st.success());
    let dir = env.cwd.join(".bash-agent");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("settings.json"),
        serde_json::json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "echo x >> hook-ran"}]}]}})
        .to_string(),
    )
    .expect("write");
    let marker = env.cwd.join("hook-ran");
    let mock = Mock::start(r#"[{"text": "hello", "repeat": true}]"#);
    let url = mock.base("claude");
    let t = Tmux::for_env(&env);
    // 1: "only this run": the hook runs, nothing is stored.
    let run = Run::start(&t, &env, "once", &url);
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    wait_until_or(
        "the trust question",
        30,
        || t.screen(w).contains("Do you trust this folder?"),
        diag,
    );
    let s = t.screen(w);
    assert!(s.contains("hooks (.bash-agent/settings.json)"), "{s}");
    t.type_text(w, "o");
    t.keys(w, &["Enter"]);
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    t.type_text(w, "hi");
    t.keys(w, &["Enter"]);
    wait_until_or("the hook ran", 30, || marker.exists(), diag);
    wait_until_or("the answer", 30, || t.screen(w).contains("hello"), diag);
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 30, || run.rc().is_some(), diag);
    assert!(user_settings(&env).get("trusted_folders").is_none());
    // 2: "no": stored, the hook does not run, and the next run does not ask.
    std::fs::remove_file(&marker).expect("rm");
    let run = Run::start(&t, &env, "no", &url);
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    wait_until_or(
        "the trust question again",
        30,
        || t.screen(w).contains("Do you trust this folder?"),
        diag,
    );
    t.type_text(w, "n");
    t.keys(w, &["Enter"]);
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    t.type_text(w, "hi");
    t.keys(w, &["Enter"]);
    wait_until_or("the answer", 30, || t.screen(w).contains("hello"), diag);
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 30, || run.rc().is_some(), diag);
    assert!(!marker.exists(), "the untrusted project's hook ran");
    assert_eq!(
        user_settings(&env)["trusted_folders"][env.cwd.to_str().expect("utf-8")],
        serde_json::Value::Bool(false)
    );
    let run = Run::start(&t, &env, "again", &url);
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    let s = t.screen(w);
    assert!(!s.contains("Do you trust"), "{s}");
    assert!(s.contains("chose not to trust"), "{s}");
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 30, || run.rc().is_some(), diag);
}
